/**
 * Real clients on a Claude model with reasoning and tools (issue 10 item 3), against the fake
 * Anthropic upstream that enforces Anthropic's thinking rule: the AI SDK chat model and LangChain's
 * ChatOpenAI drop thinking between steps, so the gateway must run the second step without
 * thinking instead of letting Anthropic answer 400. The Responses-based clients hand the sealed
 * thinking back, so there it stays on and goes back verbatim.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { expect } from 'chai';
import { z } from 'zod';
import { cell, useTextGateway } from '../text/support/harness.js';
import { ANSWERS, THINKING, TOOL_QUESTION, TOOL_RESULT, WEATHER_TOOL } from '../text/support/scenario.js';

type Obj = Record<string, unknown>;
const MODEL = 'anthropic/claude-sonnet-5-5';
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

describe('e2e clients: reasoning + tools on Claude through OpenAI-format clients', () => {
  const h = useTextGateway();
  const aiSdkWeather = tool({
    description: WEATHER_TOOL.description,
    inputSchema: jsonSchema<{ city: string; unit: string }>(WEATHER_TOOL.parameters as Parameters<typeof jsonSchema>[0]),
    execute: async () => JSON.parse(TOOL_RESULT) as unknown,
  });
  /** The AI SDK's weather tool loop on MODEL with high reasoning effort, through its chat or Responses model; the final text. */
  const runAiSdkToolLoop = async (api: 'chat' | 'responses'): Promise<string> => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const openai = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key });
    const result = await generateText({
      model: api === 'chat' ? openai.chat(MODEL) : openai.responses(MODEL),
      tools: { [WEATHER_TOOL.name]: aiSdkWeather },
      stopWhen: stepCountIs(3),
      prompt: TOOL_QUESTION,
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'high' } },
      maxRetries: 0,
    });
    return result.text;
  };
  const lastAssistant = (n: number): Obj[] => ((h.fakes.anthropic.requests[n]!.body.messages as Obj[]).findLast((m) => m.role === 'assistant')!.content as Obj[]);

  cell(h, 'AI SDK .chat() with reasoningEffort: the tool loop completes, step 2 without thinking', async () => {
    expect(await runAiSdkToolLoop('chat')).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[0]!.body.thinking).to.not.equal(undefined);
    expect(h.fakes.anthropic.requests[1]!.body).to.not.have.property('thinking');
  });

  cell(h, 'AI SDK .responses() with reasoningEffort: thinking stays on and its signed block goes back', async () => {
    expect(await runAiSdkToolLoop('responses')).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[1]!.body.thinking).to.not.equal(undefined);
    expect(lastAssistant(1)[0]).to.deep.equal({ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature });
  });

  cell(h, 'LangChain ChatOpenAI with reasoning and bindTools: the second turn succeeds', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const weather = langchainTool(async () => TOOL_RESULT, { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, schema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }) });
    const model = new ChatOpenAI({
      model: MODEL, apiKey: h.gw.key, maxRetries: 0,
      // LangChain sends `reasoning` only for model names it knows reason; modelKwargs is its documented pass-through.
      modelKwargs: { reasoning_effort: 'high' }, configuration: { baseURL: `${h.gw.url}/v1` },
    }).bindTools([weather]);
    const first = (await model.invoke([new HumanMessage(TOOL_QUESTION)])) as AIMessage;
    const call = first.tool_calls![0]!;
    const second = await model.invoke([new HumanMessage(TOOL_QUESTION), first, new ToolMessage({ content: TOOL_RESULT, tool_call_id: call.id! })]);
    expect(second.text).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[0]!.body.thinking, 'the first turn thinks').to.not.equal(undefined);
  });

  cell(h, 'OpenAI Agents SDK agent with reasoning and a tool: thinking stays on and goes back verbatim', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    setTracingDisabled(true);
    const weather = agentTool({
      name: WEATHER_TOOL.name,
      description: WEATHER_TOOL.description,
      parameters: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
      execute: async () => TOOL_RESULT,
    });
    const client = new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key, maxRetries: 0 });
    const agent = new Agent({ name: 'Weather', instructions: 'Answer weather questions.', model: new OpenAIResponsesModel(client, MODEL), modelSettings: { reasoning: { effort: 'high' } }, tools: [weather] });
    const result = await run(agent, TOOL_QUESTION);
    expect(result.finalOutput).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[1]!.body.thinking).to.not.equal(undefined);
    expect(lastAssistant(1)[0]).to.deep.equal({ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature });
  });
});
