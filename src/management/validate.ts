// Request validation driven by the protoc-gen-validate rules on the @zitadel/proto descriptors, with the messages
// of PGV's generated Go code, as ZITADEL returns them ("invalid UpdateMyProfileRequest.FirstName:
// value length must be between 1 and 200 runes, inclusive"). Like PGV's Validate(), the first violation wins.
// Beyond PGV, every enum field must hold a defined value, as ZITADEL's API demands, with or without a rule.
import {
  getOption,
  hasOption,
  isFieldSet,
  type DescField,
  type DescMessage,
  type DescOneof,
  type Message,
} from '@bufbuild/protobuf';
import type { Duration } from '@bufbuild/protobuf/wkt';
import {
  BytesRulesSchema,
  RepeatedRulesSchema,
  StringRulesSchema,
  required,
  rules,
  type FieldRules,
} from '@zitadel/proto/validate/validate_pb.js';
import { AppError, Code } from '../platform/errors.ts';
import { hasNul } from '../platform/text.ts';

export function validateMessage(schema: DescMessage, message: Message): void {
  const violation = nulViolation(schema, message) ?? firstViolation(schema, message);
  if (violation) throw new AppError(Code.InvalidArgument, violation);
}

/** A request made (decoded) and validated on first use, then the same one: a project member's permission check reads
 *  the project from it before the operation does (management/auth.ts), and a malformed one is 400 either way. */
export function validatedOnce(schema: DescMessage, make: () => Message): () => Message {
  let request: Message | undefined;
  return () => {
    if (!request) {
      const made = make();
      validateMessage(schema, made);
      request = made;
    }
    return request;
  };
}

type Values = Record<string, unknown>;

function firstViolation(schema: DescMessage, message: Message): string | undefined {
  const values = message as unknown as Values;
  for (const field of schema.fields) {
    // Like PGV, rules of an unset oneof member or proto3 `optional` field do not apply.
    if ((field.oneof || field.proto.proto3Optional) && !isFieldSet(message, field)) continue;
    const value = field.oneof ? (values[field.oneof.localName] as { value: unknown }).value : values[field.localName];
    const problem = checkField(field, value, message, schema);
    if (problem) return problem;
  }
  for (const oneof of schema.oneofs) {
    if (getOption(oneof, required) && (values[oneof.localName] as { case?: string }).case === undefined) {
      return `invalid ${pgvName(schema, oneof)}: value is required`;
    }
  }
  return undefined;
}

/** No string anywhere in a request may hold U+0000 (platform/text.ts), whatever its rules say, in
 *  nested, repeated and PGV-skipped messages too; reported in PGV's words for the innermost field. */
function nulViolation(schema: DescMessage, message: Message): string | undefined {
  const values = message as unknown as Values;
  const nested = (member: DescField, inner: string | undefined, at = '') =>
    inner && `invalid ${pgvName(schema, member)}${at}: embedded message failed validation | caused by: ${inner}`;
  const text = (member: DescField, value: unknown, at = '') =>
    typeof value === 'string' && hasNul(value)
      ? `invalid ${pgvName(schema, member)}${at}: value must not contain NUL characters`
      : undefined;
  for (const field of schema.fields) {
    if (!isFieldSet(message, field)) continue;
    const value = field.oneof ? (values[field.oneof.localName] as { value: unknown }).value : values[field.localName];
    let problem: string | undefined;
    switch (field.fieldKind) {
      case 'scalar':
        problem = text(field, value);
        break;
      case 'enum': // numbers
      case 'map': // no request message of the v1 services has one
        break;
      case 'message':
        problem = nested(field, nulViolation(field.message, value as Message));
        break;
      case 'list':
        for (const [i, item] of (value as unknown[]).entries()) {
          problem =
            field.listKind === 'message'
              ? nested(field, nulViolation(field.message, item as Message), `[${i}]`)
              : text(field, item, `[${i}]`);
          if (problem) break;
        }
        break;
    }
    if (problem) return problem;
  }
  return undefined;
}

function checkField(field: DescField, value: unknown, message: Message, schema: DescMessage): string | undefined {
  const r = hasOption(field, rules) ? getOption(field, rules) : undefined;
  const fail = (reason: string, suffix = '') => `invalid ${pgvName(schema, field)}${suffix}: ${reason}`;
  switch (field.fieldKind) {
    case 'scalar': {
      const reason = scalarViolation(r, value);
      return reason && fail(reason);
    }
    case 'enum': {
      const reason = enumViolation(
        field.enum.values.map((v) => v.number),
        r,
        value as number,
      );
      return reason && fail(reason);
    }
    case 'message': {
      if (!isFieldSet(message, field)) return r?.message?.required ? fail('value is required') : undefined;
      const durationReason = r?.type.case === 'duration' ? durationViolation(r, value as Duration) : undefined;
      if (durationReason) return fail(durationReason);
      if (r?.message?.skip) return undefined;
      const inner = firstViolation(field.message, value as Message);
      return inner && fail(`embedded message failed validation | caused by: ${inner}`);
    }
    case 'list': {
      const items = value as unknown[];
      const repeated = r?.type.case === 'repeated' ? r.type.value : undefined;
      const limit = repeated && setRules(RepeatedRulesSchema, repeated);
      const min = Number(limit?.('minItems') ?? 0n);
      const max = Number(limit?.('maxItems') ?? Infinity);
      if (items.length < min || items.length > max) return fail(countReason(min, max));
      for (const [i, item] of items.entries()) {
        const at = `[${i}]`;
        if (field.listKind === 'message') {
          const inner = firstViolation(field.message, item as Message);
          if (inner) return fail(`embedded message failed validation | caused by: ${inner}`, at);
        } else if (field.listKind === 'enum') {
          const reason = enumViolation(
            field.enum.values.map((v) => v.number),
            repeated?.items,
            item as number,
          );
          if (reason) return fail(reason, at);
        } else {
          const reason = scalarViolation(repeated?.items, item);
          if (reason) return fail(reason, at);
        }
      }
      return undefined;
    }
    case 'map':
      return undefined; // no map field of the v1 services carries rules
  }
}

function scalarViolation(r: FieldRules | undefined, value: unknown): string | undefined {
  // An unset optional or oneof member has no value to check; "required" is its own rule.
  if (value === undefined) return undefined;
  if (r?.type.case === 'string') {
    const s = r.type.value;
    const rule = setRules(StringRulesSchema, s);
    const text = value as string;
    if (s.ignoreEmpty && text === '') return undefined;
    const runes = [...text].length;
    const len = rule('len');
    if (len !== undefined && runes !== Number(len)) return `value length must be ${len} runes`;
    const min = numberOrUndefined(rule('minLen'));
    const max = numberOrUndefined(rule('maxLen'));
    if ((min !== undefined && runes < min) || (max !== undefined && runes > max)) {
      if (min !== undefined && max !== undefined)
        return `value length must be between ${min} and ${max} runes, inclusive`;
      return min !== undefined
        ? `value length must be at least ${min} runes`
        : `value length must be at most ${max} runes`;
    }
    const bytes = Buffer.byteLength(text);
    const minBytes = numberOrUndefined(rule('minBytes'));
    const maxBytes = numberOrUndefined(rule('maxBytes'));
    if (minBytes !== undefined && bytes < minBytes) return `value length must be at least ${minBytes} bytes`;
    if (maxBytes !== undefined && bytes > maxBytes) return `value length must be at most ${maxBytes} bytes`;
    if (rule('prefix') !== undefined && !text.startsWith(s.prefix))
      return `value does not have prefix ${JSON.stringify(s.prefix)}`;
    if (s.wellKnown.case === 'email' && s.wellKnown.value && !isEmailAddress(text))
      return 'value must be a valid email address';
    return undefined;
  }
  if (r?.type.case === 'bytes') {
    const rule = setRules(BytesRulesSchema, r.type.value);
    const length = (value as Uint8Array).length;
    const min = numberOrUndefined(rule('minLen'));
    const max = numberOrUndefined(rule('maxLen'));
    if ((min !== undefined && length < min) || (max !== undefined && length > max)) {
      if (min !== undefined && max !== undefined)
        return `value length must be between ${min} and ${max} bytes, inclusive`;
      return min !== undefined
        ? `value length must be at least ${min} bytes`
        : `value length must be at most ${max} bytes`;
    }
  }
  return undefined;
}

function enumViolation(defined: number[], r: FieldRules | undefined, value: number): string | undefined {
  if (!defined.includes(value)) return 'value must be one of the defined enum values';
  if (r?.type.case === 'enum' && r.type.value.notIn.includes(value))
    return `value must not be in list [${r.type.value.notIn.join(', ')}]`;
  return undefined;
}

function durationViolation(r: FieldRules, value: Duration): string | undefined {
  if (r.type.case !== 'duration') return undefined;
  const { gte, lte } = r.type.value;
  const seconds = (d: Duration) => Number(d.seconds) + d.nanos / 1e9;
  const v = seconds(value);
  if ((gte && v < seconds(gte)) || (lte && v > seconds(lte))) {
    return `value must be inside range [${gte ? `${seconds(gte)}s` : '-inf'}, ${lte ? `${seconds(lte)}s` : 'inf'}]`;
  }
  return undefined;
}

// The rule messages are proto2: a limit applies only when its field is set, not when it holds the default 0.
function setRules(schema: DescMessage, value: Message): (key: string) => unknown {
  return (key) => {
    const field = schema.field[key];
    return field && isFieldSet(value, field) ? (value as unknown as Values)[key] : undefined;
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function countReason(min: number, max: number): string {
  if (min > 0 && max !== Infinity) return `value must contain between ${min} and ${max} items, inclusive`;
  return min > 0 ? `value must contain at least ${min} item(s)` : `value must contain no more than ${max} item(s)`;
}

// RFC 5322 addr-spec in its dot-atom form with a DNS host name, the subset PGV's email rule accepts.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const HOST_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const local = value.slice(0, at);
  const host = value.slice(at + 1).replace(/\.$/, '');
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  const labels = host.split('.');
  return host.length <= 253 && labels.every((l) => HOST_LABEL.test(l));
}

/** PGV's naming: the Go type (nested types joined by `_`) and the Go field name (CamelCase). */
export function pgvName(schema: DescMessage, member: DescField | DescOneof): string {
  const goType = schema.typeName.slice(schema.file.proto.package.length + 1).replaceAll('.', '_');
  const goField = member.name
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
  return `${goType}.${goField}`;
}
