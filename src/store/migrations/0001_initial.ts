import type { Kysely } from 'kysely';

// Migrations take Kysely<any>: they describe the schema as it was then, not as the types say now.
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await createProjects(db);
  await createApiKeys(db);
  await createJobs(db);
  await createJobMessages(db);
  await createJobEvents(db);
  await createIdempotencyKeys(db);
  await createRateLimits(db);
}

async function createProjects(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('base_branch', 'text', (c) => c.notNull())
    .addColumn('publish', 'text', (c) => c.notNull())
    .addColumn('allowed_models', 'text')
    .addColumn('default_model', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('host_settings', 'text')
    .addColumn('host_token_encrypted', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

async function createApiKeys(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('ip_allowlist', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();
}

async function createJobs(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('phase', 'text')
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('base_ref', 'text', (c) => c.notNull())
    .addColumn('source_repository', 'text', (c) => c.notNull())
    .addColumn('source_ref', 'text', (c) => c.notNull())
    .addColumn('draft', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pr_link', 'text')
    .addColumn('title', 'text')
    .addColumn('summary', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('steps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('files_changed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('event_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('available_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('archived_at', 'text')
    .execute();
  // Listing is newest first per project, optionally by status; ids sort by creation time.
  await db.schema.createIndex('jobs_project_id').on('jobs').columns(['project_id', 'id']).execute();
  await db.schema
    .createIndex('jobs_project_status_id')
    .on('jobs')
    .columns(['project_id', 'status', 'id'])
    .execute();
  // The worker's claim looks for active jobs by availability.
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'available_at']).execute();
}

async function createJobMessages(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('job_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('job_messages_job').on('job_messages').columns(['job_id', 'id']).execute();
}

async function createJobEvents(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('job_events')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_events_pk', ['job_id', 'seq'])
    .execute();
}

async function createIdempotencyKeys(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_id', 'key'])
    .execute();
}

async function createRateLimits(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
