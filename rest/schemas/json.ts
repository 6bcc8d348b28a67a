// Free-form JSON (an entity's state) as the server stores it (src/core/validation.ts storableJson), in the OpenAPI
// document: strings and keys without U+0000, no key __proto__, finite numbers. Its depth limit has no JSON Schema
// keyword: the description says it.
import { maxJsonDepth, storablePattern } from '../../src/core/validation.ts';

const jsonValueRef = { $ref: '#/components/schemas/JsonValue' };
const jsonKey = { type: 'string', pattern: storablePattern, not: { const: '__proto__' } };

/** The JsonValue component, registered by rest/openapi.ts. */
export const JsonValue = {
  description: `any JSON value: strings and keys without U+0000 or unpaired surrogates, no key __proto__, numbers finite, nested at most ${maxJsonDepth} levels`,
  anyOf: [
    { type: 'string', pattern: storablePattern },
    { type: ['number', 'boolean', 'null'] },
    { type: 'array', items: jsonValueRef },
    { type: 'object', propertyNames: jsonKey, additionalProperties: jsonValueRef },
  ],
};

/** For a zod schema's meta: a JSON object whose values are JsonValue. */
export const jsonObject = { type: 'object', propertyNames: jsonKey, additionalProperties: jsonValueRef };
