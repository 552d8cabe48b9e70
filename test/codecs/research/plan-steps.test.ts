import { expect } from 'chai';
import { derivePlanSteps } from '../../../src/codecs/robotics/plan-steps.js';

describe('codecs/robotics/plan-steps', () => {
  describe('derivePlanSteps', () => {
    it('numbers steps from numbered and bulleted lines in order, skipping commentary', () => {
      expect(derivePlanSteps('Here is the plan:\n1. Open gripper\n- Approach\n2) Close gripper\nGood luck.')).to.deep.equal([
        { index: 1, description: 'Open gripper' },
        { index: 2, description: 'Approach' },
        { index: 3, description: 'Close gripper' },
      ]);
    });

    it('does not read decimals or dates as numbered steps', () => {
      expect(derivePlanSteps('Move 3.5 cm left.\n2026-01-01 log entry')).to.deep.equal([
        { index: 1, description: 'Move 3.5 cm left.\n2026-01-01 log entry' },
      ]);
    });

    it('returns no steps when the answer is empty or blank', () => {
      expect(derivePlanSteps('  \n ')).to.deep.equal([]);
    });
  });
});
