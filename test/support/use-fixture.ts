import { afterAll, beforeAll } from 'vitest';

/** How `useFixture` ends what it started: by default the fixture's own `close()`. */
export type FixtureClose<Fixture> = (fixture: Fixture) => Promise<unknown>;

/**
 * Starts a fixture in the suite's `beforeAll` and ends it in its `afterAll`, in place of the
 * `let x; beforeAll(() => x = start()); afterAll(() => x?.close())` every suite wrote again. The
 * object returned reads through to the started fixture; reading it before `beforeAll` throws.
 * `options` may be a function, for settings known only once an earlier `beforeAll` has run.
 */
export function useFixture<Fixture extends object, Options>(
  start: (options: Options) => Promise<Fixture>,
  options: Options | (() => Options),
  close: FixtureClose<Fixture>,
): Fixture {
  let current: Fixture | undefined;
  beforeAll(async () => {
    current = await start(typeof options === 'function' ? (options as () => Options)() : options);
  });
  afterAll(async () => {
    if (current) await close(current);
  });
  return new Proxy({} as Fixture, {
    get(_, property) {
      if (!current) throw new Error(`the fixture is read (${String(property)}) before its beforeAll`);
      const value = Reflect.get(current, property);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

/**
 * Views of the named parts of a fixture that `useFixture` started, each read through when used, so
 * that a suite can write `const { t, browser } = partsOf(fixture, 't', 'browser')` at describe time
 * and use `t` and `browser` in its tests as if they had been assigned in `beforeAll`.
 */
export function partsOf<Fixture extends object, Key extends keyof Fixture>(
  fixture: Fixture,
  ...keys: Key[]
): Pick<Fixture, Key> {
  const parts = {} as Pick<Fixture, Key>;
  for (const key of keys) {
    const part = () => Reflect.get(fixture, key) as object;
    parts[key] = new Proxy({} as Fixture[Key] & object, {
      get(_, property) {
        const target = part();
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
      set(_, property, value) {
        return Reflect.set(part(), property, value);
      },
    });
  }
  return parts;
}
