import { errors } from '../../errors/gateway-error.js';
import type { Conversation, Message } from '../internal.js';
import { decodeChatMessages } from '../openai-responses/chat-messages.js';
import { readNumber, readString, isRecord } from '../shared/json.js';

/** How a task surface reads its `input` field. */
export interface TaskInputRules {
  /** Robotics (SPEC 4.11) takes any JSON as input: non-string, non-message input becomes JSON text. */
  anyJson: boolean;
}

/**
 * Body of a text task endpoint (research runs SPEC 4.10, robotics sessions SPEC 4.11) -> internal
 * form: `messages` (SPEC 2.3 chat messages) first, then `input` (a string, or an array of chat
 * messages); `instructions` is the first system text; `max_output_tokens` caps the answer.
 * These surfaces have no `stream` field (SPEC 2.8, 4.10, 4.11): the answer is always one JSON
 * object, so a client's `stream: true` is ignored rather than turned into SSE.
 */
export function decodeTaskRequest(body: Record<string, unknown>, rules: TaskInputRules): Conversation {
  const system: string[] = [];
  const instructions = readString(body.instructions);
  if (instructions !== undefined && instructions.length > 0) system.push(instructions);
  const messages: Message[] = [];
  if (Array.isArray(body.messages)) {
    const decoded = decodeChatMessages(body.messages, 'messages');
    system.push(...decoded.system);
    messages.push(...decoded.messages);
  }
  if (body.input !== undefined && body.input !== null) {
    const decoded = decodeInput(body.input, rules);
    system.push(...decoded.system);
    messages.push(...decoded.messages);
  }
  if (messages.length === 0) throw errors.invalidRequest('The request has no user input: send a non-empty `input`.', 'empty_input');
  const conversation: Conversation = { model: readString(body.model) ?? '', system, messages, stream: false };
  const maxOutput = readNumber(body.max_output_tokens);
  if (maxOutput !== undefined) conversation.maxOutputTokens = maxOutput;
  return conversation;
}

function decodeInput(input: unknown, rules: TaskInputRules): { system: string[]; messages: Message[] } {
  if (typeof input === 'string') return { system: [], messages: input.length > 0 ? [{ role: 'user', parts: [{ type: 'text', text: input }] }] : [] };
  const isMessageList = Array.isArray(input) && input.every((item) => isRecord(item) && typeof item.role === 'string');
  if (isMessageList) return decodeChatMessages(input as unknown[], 'input');
  if (!rules.anyJson) throw errors.invalidRequest('input must be a string or an array of chat messages.', 'invalid_input');
  // Robotics input is free-form (sensor readings, a scene graph ...): the model sees it as JSON text.
  return { system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: JSON.stringify(input) }] }] };
}
