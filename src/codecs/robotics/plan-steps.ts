/** One step of a robotics plan. */
export interface PlanStep { index: number; description: string }

const NUMBERED = /^\s*(?:step\s+)?\d{1,3}\s*[.):]\s+(.+)$/i;
const BULLETED = /^\s*[-*•+]\s+(.+)$/;

/**
 * Derives plan steps from the model's answer: numbered lines (`1.`, `2)`, `Step 3:`) and bulleted
 * lines (`-`, `*`, `•`) each become a step, in order; other lines are commentary. An answer with
 * no such lines is one step holding the whole (trimmed) text; an empty answer has no steps.
 */
export function derivePlanSteps(text: string): PlanStep[] {
  const items: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = NUMBERED.exec(line) ?? BULLETED.exec(line);
    const description = match?.[1]?.trim();
    if (description !== undefined && description.length > 0) items.push(description);
  }
  if (items.length === 0) {
    const whole = text.trim();
    return whole.length > 0 ? [{ index: 1, description: whole }] : [];
  }
  return items.map((description, i) => ({ index: i + 1, description }));
}
