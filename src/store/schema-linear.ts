/** The signing secret of a project's Linear webhook (docs/automations.md, "Linear"). */
export interface LinearSecretsTable {
  project_id: string;
  /** Sealed with the process's secret box, bound to the project; never plaintext. */
  secret_sealed: string;
  updated_at: string;
}
