/**
 * The "Setup held for review" section of a project's settings (docs/security.md, "Setup and the
 * environment"): in push mode, the setup inputs the service's own commits changed, and the button
 * with which a person who reviewed them lets the next setup run them (`agentjobs project setup
 * accept` does the same). Shown only while something waits.
 */
import type { Project } from '../domain/project.js';
import { type Html, html } from './html.js';

export function setupReviewSection(project: Project, csrf: string): Html | '' {
  const review = project.setupReview;
  if (!review) return '';
  return html`<section id="setup-review"><h2>Setup held for review</h2><div class="pad">
    <div class="flash warn" role="alert">The service's own commits changed what the setup command reads. Until a person accepts them, jobs that need a new environment fail with <code>setup_needs_review</code>: code no person reviewed never runs with network.</div>
    <p>Changed since ${review.since} by jobs ${review.jobIds.map((id, index) => html`${index ? ', ' : ''}<a href="/ui/projects/${project.id}/jobs/${id}">${id}</a>`)}:</p>
    <ul>${review.files.map((file) => html`<li><code>${file}</code></li>`)}</ul>
    <p class="hint">Review these files on the base branch ${project.baseBranch} first.</p>
    <form method="post" action="/ui/projects/${project.id}/setup/accept" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}">
      <button type="submit" class="primary">Accept and let setup run them</button>
    </form>
  </div></section>`;
}
