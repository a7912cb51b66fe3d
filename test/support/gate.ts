/**
 * A gate a test holds a step behind (`heldUntil(gate.opened, …)`) until it calls `open`: the
 * promise and its resolver that each such test wrote out again.
 */
export function makeGate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
