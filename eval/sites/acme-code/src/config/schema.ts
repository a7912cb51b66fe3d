import { z } from 'zod';

/** The `[service]` table of acme.toml. */
export const service = z.object({
  name: z.string(),
  port: z.number().int().default(8080),
  /** The path called before a new deployment takes traffic. */
  health_check: z.string().default('/healthz'),
  /** How long one health check may take before it counts as failed. */
  health_check_timeout: z.string().default('45s'),
});

/** The `[instances]` table. */
export const instances = z.object({
  memory: z.enum(['256MB', '512MB', '1GB', '2GB', '4GB']).default('1GB'),
  min: z.number().int().min(0).default(1),
  max: z.number().int().min(1).default(4),
});
