/**
 * The project's environment laid into a sandbox's checkout (sandbox.ts): each top-level entry the
 * setup command left is bound read-only in place, so a run costs no copy and cannot change what
 * the next job gets; a writable, sized tmpfs over `.cache` in each folder keeps tools that write
 * their caches there (`node_modules/.cache`) working.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** One entry of the environment: a folder or file bound read-only, or a link made in place. */
export type Layer =
  | { name: string; source: string; kind: 'file' }
  /** `cache`: the folder holds a `.cache` folder to mount a writable tmpfs on. */
  | { name: string; source: string; kind: 'directory'; cache: boolean }
  | { name: string; link: string };

/** The folder in each laid-in folder that stays writable (a fresh tmpfs per run). */
export const LAYER_CACHE = '.cache';

/** The bubblewrap arguments that lay `layers` into `checkout` (a path inside the sandbox). */
export function layerArguments(layers: Layer[], checkout: string, size: string): string[] {
  const args: string[] = [];
  for (const layer of layers) {
    const target = `${checkout}/${layer.name}`;
    if ('link' in layer) args.push('--symlink', layer.link, target);
    else {
      args.push('--ro-bind', layer.source, target);
      if (layer.kind === 'directory' && layer.cache)
        args.push('--size', size, '--tmpfs', `${target}/${LAYER_CACHE}`);
    }
  }
  return args;
}

/**
 * The environment's top-level entries as layers, less those the checkout has itself (the work
 * wins). A link is made anew inside, never followed here: it could lead anywhere on this machine.
 */
export function environmentLayers(environment: string, checkout: string): Layer[] {
  const layers: Layer[] = [];
  for (const name of readdirSync(environment)) {
    if (lstatExists(join(checkout, name))) continue;
    const source = join(environment, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) layers.push({ name, link: readlinkSync(source) });
    else if (stat.isDirectory())
      layers.push({ name, source, kind: 'directory', cache: isDirectory(join(source, LAYER_CACHE)) });
    else if (stat.isFile()) layers.push({ name, source, kind: 'file' });
  }
  return layers;
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
