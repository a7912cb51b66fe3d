/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests. The parsers on npm
 * are lenient (one silently drops the labels of histograms), so this one holds every line to the
 * format's grammar and every sample to a family its `# TYPE` line declared, and throws otherwise.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: `x_bucket`, `x_sum`, `x_count` for a histogram `x`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
// Prometheus reads a value with Go's strconv.ParseFloat, which takes NaN and Inf in any case;
// prom-client writes "Nan" for a gauge with no samples yet (the event-loop lag right after start).
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[Nn][Aa][Nn]|[-+]?[Ii][Nn][Ff])';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL}(?:,${LABEL})*,?)?)\\})? (${VALUE})(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_PAIR = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g');

const SUFFIXES: Record<MetricType, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function labelValueOf(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(["\\n])/g, (_, character) => (character === 'n' ? '\n' : character));
}

/** Parses an exposition into its families by name; throws on the first line that breaks the format. */
export function parsePrometheus(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  let current: MetricFamily | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = HELP.exec(line);
    if (help) {
      helps.set(help[1] as string, help[2] as string);
      continue;
    }
    const type = TYPE.exec(line);
    if (type) {
      const name = type[1] as string;
      if (families.has(name)) throw new Error(`${name} is declared twice`);
      current = { name, type: type[2] as MetricType, help: helps.get(name) ?? '', samples: [] };
      families.set(name, current);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a line of the Prometheus text format: ${line}`);
    const name = sample[1] as string;
    if (!current || !SUFFIXES[current.type].some((suffix) => `${current?.name}${suffix}` === name)) {
      throw new Error(`sample ${name} does not belong to the family declared before it`);
    }
    const labels: Record<string, string> = {};
    for (const [, labelName, quoted] of (sample[2] ?? '').matchAll(LABEL_PAIR)) {
      labels[labelName as string] = labelValueOf(quoted as string);
    }
    current.samples.push({ name, labels, value: numberOf(sample[3] as string) });
  }
  return families;
}

/**
 * The value of the sample of `name` whose labels include `labels`: a counter's or gauge's value,
 * a histogram's `_count`. Undefined when there is none.
 */
export function sample(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = families.get(name);
  if (!family) return undefined;
  const wanted = family.type === 'histogram' ? `${name}_count` : name;
  return family.samples.find(
    (candidate) =>
      candidate.name === wanted &&
      Object.entries(labels).every(([key, value]) => candidate.labels[key] === value),
  )?.value;
}

/** Every label value of every sample (for checks that no id or secret is a label). */
export function labelValues(families: Map<string, MetricFamily>): string[] {
  return [...families.values()].flatMap((family) =>
    family.samples.flatMap((item) =>
      Object.entries(item.labels)
        .filter(([key]) => key !== 'le')
        .map(([, value]) => value),
    ),
  );
}

/** A sample's value as Prometheus reads it. */
function numberOf(text: string): number {
  if (/^nan$/i.test(text)) return Number.NaN;
  if (/^[-+]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}
