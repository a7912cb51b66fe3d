import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'vitest';

it('makes a temporary folder and keeps it', () => {
  fs.mkdtempSync(path.join(os.tmpdir(), 'left-folder-'));
});
