import { tool } from 'ai';
import { z } from 'zod';
import { plural } from '../text.js';
import type { ToolContext } from './context.js';

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;

/** One line of the agent's plan, shown on the job. */
export interface PlanItem {
  content: string;
  status: (typeof PLAN_STATUSES)[number];
}

/** `update_plan`: the agent's whole plan, handed to `onPlan` at each valid call. */
export function updatePlanTool(
  { guarded }: ToolContext,
  onPlan: (items: PlanItem[]) => void | Promise<void>,
) {
  return tool({
    description:
      'Record your plan for multi-step work; it is shown to the user on the job. Send the whole list each time, with each item pending, in_progress or completed.',
    inputSchema: z.object({
      items: z
        .array(
          z.object({
            content: z.string().min(1).describe('One step, in a short sentence.'),
            status: z.enum(PLAN_STATUSES).describe('pending, in_progress or completed.'),
          }),
        )
        .max(50)
        .describe('The full plan, in order.'),
    }),
    execute: ({ items }) =>
      guarded(async () => {
        await onPlan(items);
        const done = items.filter((item) => item.status === 'completed').length;
        return `Plan updated: ${done} of ${items.length} step${plural(items.length)} completed.`;
      }),
  });
}
