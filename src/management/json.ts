// JSON input of the REST gateway as grpc-gateway reads it: lowerCamelCase or snake_case member
// names, enums as names or numbers, unknown members ignored. Unknown members are dropped here rather than with
// protobuf-es's ignoreUnknownFields, which would also silently drop an unknown enum name instead of rejecting it.
import { fromJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { AppError, Code } from '../platform/errors.ts';
import { pgvName } from './validate.ts';

export function decodeJson(schema: DescMessage, json: unknown): Message {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new AppError(Code.InvalidArgument, 'invalid request body: expected a JSON object');
  const known = keepKnown(schema, json as Record<string, unknown>);
  try {
    return fromJson(schema, known as JsonValue);
  } catch (error) {
    throw new AppError(Code.InvalidArgument, `invalid request body: ${(error as Error).message}`);
  }
}

function keepKnown(schema: DescMessage, json: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (field) out[key] = knownValue(field, value);
  }
  return out;
}

function knownValue(field: DescField, value: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  // Well-known types (Timestamp, Duration, Struct, ...) have their own JSON forms and are passed through.
  const plain = (m: DescMessage) => !m.typeName.startsWith('google.protobuf.');
  if (field.fieldKind === 'message' && plain(field.message) && isObject(value)) return keepKnown(field.message, value);
  if (field.fieldKind === 'list' && field.listKind === 'message' && plain(field.message) && Array.isArray(value)) {
    const message = field.message;
    return value.map((item) => (isObject(item) ? keepKnown(message, item) : item));
  }
  const enumType =
    field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum') ? field.enum : undefined;
  const names = Array.isArray(value) ? value : [value];
  if (enumType && names.some((v) => typeof v === 'string' && !enumType.values.some((e) => e.name === v))) {
    throw new AppError(
      Code.InvalidArgument,
      `invalid ${pgvName(field.parent, field)}: value must be one of the defined enum values`,
    );
  }
  return value;
}
