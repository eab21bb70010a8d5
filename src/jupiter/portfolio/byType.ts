import { z } from 'zod';

/**
 * A union keyed by the `type` field that tolerates unknown types: a value whose `type` is one of `known` is parsed
 * by that schema (its issues keep their field paths, unlike a plain z.union that reports only "invalid input"),
 * and any other value goes to `fallback`. Used for Portfolio elements and assets, whose type lists grow.
 */
export function byType<K extends string, A extends z.ZodType, F extends z.ZodType>(known: readonly K[], schema: A, fallback: F) {
  const types: readonly string[] = known;
  return z.unknown().transform((value, ctx): z.output<A> | z.output<F> => {
    const type = typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined;
    const result = typeof type === 'string' && types.includes(type) ? schema.safeParse(value) : fallback.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}
