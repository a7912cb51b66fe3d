import { expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { automationInput, automationValues, errorsOf, readAutomationForm } from './automation-form.js';

it('reads the Slack trigger and the notify channel from the form, and maps their refusals back', () => {
  const values = readAutomationForm({
    name: 'Asks',
    triggerType: 'slack',
    slackChannel: ' C0123ABCD ',
    notifySlack: 'C0456EFGH',
    prompt: 'Do {{message.text}}',
  });
  expect(automationInput(values)).toEqual({
    input: expect.objectContaining({
      trigger: { type: 'slack', channel: 'C0123ABCD' },
      notify: { slack: 'C0456EFGH' },
    }),
  });
  expect(automationInput({ ...values, slackChannel: '' }).errors).toEqual({ slackChannel: 'is required' });
  expect(automationInput({ ...values, notifySlack: '' })).toEqual({
    input: expect.objectContaining({ notify: { slack: null } }),
  });
  const refusal = (path: string) =>
    errorsOf(new AppError('invalid_automation', 'no', { details: [{ path, message: 'not mapped' }] }));
  expect(refusal('body.trigger.channel')).toEqual({ slackChannel: 'not mapped' });
  expect(refusal('body.notify.slack')).toEqual({ notifySlack: 'not mapped' });
  const shown = automationValues({
    id: 'A',
    projectId: 'P',
    name: 'Asks',
    enabled: true,
    trigger: { type: 'slack', channel: 'C0123ABCD' },
    prompt: 'x',
    group: true,
    draft: false,
    model: null,
    baseRef: null,
    allowedAuthors: [],
    notify: { slack: 'C0456EFGH' },
    createdAt: '',
    updatedAt: '',
    lastRunAt: null,
    nextRunAt: null,
  });
  expect([shown.slackChannel, shown.notifySlack]).toEqual(['C0123ABCD', 'C0456EFGH']);
});
