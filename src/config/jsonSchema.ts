import { z } from 'zod';
import { STRATEGY_PATH, type StrategyRegistry } from './load.js';
import { configSchema } from './schema.js';

/** Where the config files point editors at the schema (`# yaml-language-server: $schema=./schema.json`). */
export const SCHEMA_FILE = 'config/schema.json';

type JsonSchema = Record<string, unknown>;

// As a config is written (zod's input side). The config's own custom values (durations such as "10s", amounts in
// base units such as "1000000") are strings or numbers; zod cannot describe a custom check, so they are said so.
const OPTIONS = {
  io: 'input' as const,
  unrepresentable: 'any' as const,
  override: (ctx: { zodSchema: { _zod: { def: { type: string } } }; jsonSchema: JsonSchema }) => {
    if (ctx.zodSchema._zod.def.type === 'custom') ctx.jsonSchema.type = ['string', 'number'];
  },
};

/**
 * The JSON Schema (draft 2020-12) of a config file, generated from the zod schemas the loader validates with: the
 * sections, and each strategy instance's `params` by its `strategy` (every strategy of the registry). Editors use it
 * to complete and check config files; the loader stays the judge (cross-field rules, symbols, secrets).
 */
export function configJsonSchema(registry: StrategyRegistry): JsonSchema {
  const schema = z.toJSONSchema(configSchema, OPTIONS) as unknown as JsonSchema & { properties: { strategies: { items: JsonSchema & { properties: Record<string, JsonSchema> } } } };
  const names = registry.names();
  const item = schema.properties.strategies.items;
  item.properties.strategy = {
    anyOf: [
      { type: 'string', enum: [...names], description: 'a built-in strategy' },
      { type: 'string', pattern: STRATEGY_PATH.source, description: 'a strategy of your own: the path of its module (.ts or .js), relative to the config file' },
    ],
  };
  item.allOf = names.map((name) => {
    const params = z.toJSONSchema(registry.get(name)!.params, OPTIONS) as unknown as JsonSchema;
    delete params.$schema;
    return { if: { properties: { strategy: { const: name } }, required: ['strategy'] }, then: { properties: { params } } };
  });
  return { ...schema, title: 'jup-keeper config' };
}
