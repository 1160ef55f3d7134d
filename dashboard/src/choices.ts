/**
 * A closed set of API values (an enum of the generated document) with a label each. Declared as
 * `choices({...} satisfies Record<Enum, string>)`, a value the API adds is a compile error until
 * it has a label, and a string from a form is narrowed without a cast.
 */
export function choices<K extends string>(labels: Record<K, string>) {
  const values = Object.keys(labels).filter((k): k is K => k in labels);
  return {
    labels,
    values,
    /** `[value, label]` pairs, for `Select`. */
    options: values.map((v): [string, string] => [v, labels[v]]),
    is: (s: string): s is K => values.some((v) => v === s),
  };
}
