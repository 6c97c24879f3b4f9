import type { z } from 'zod';
import type { ValidationErrorBody, ValidationErrors } from './errors';

const describeType: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const attributeName = (path: PropertyKey[]) =>
  path.length === 0 ? 'body' : path.map(String).join('.').replaceAll('_', ' ');

function reason(issue: z.core.$ZodIssue): string {
  const attribute = attributeName(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `The ${attribute} field is required.`;
      return `The ${attribute} field must be ${describeType[issue.expected] ?? issue.expected}.`;
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? `The ${attribute} field must not be empty.`
          : `The ${attribute} field must be at least ${issue.minimum} characters.`;
      }
      if (issue.origin === 'array') return `The ${attribute} field must have at least ${issue.minimum} items.`;
      return `The ${attribute} field must be at least ${issue.minimum}.`;
    case 'too_big':
      if (issue.origin === 'string') return `The ${attribute} field must not be greater than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `The ${attribute} field must not have more than ${issue.maximum} items.`;
      return `The ${attribute} field must not be greater than ${issue.maximum}.`;
    case 'invalid_format':
      return `The ${attribute} field format is invalid.`;
    case 'invalid_value':
      return `The selected ${attribute} is invalid. Allowed: ${issue.values.map(String).join(', ')}.`;
    case 'invalid_union':
      return `The ${attribute} field has an invalid type or value.`;
    case 'unrecognized_keys':
      return `The ${attribute} field has unknown keys: ${issue.keys.join(', ')}.`;
    default:
      return issue.message;
  }
}

/** Turns zod issues into the 422 errors map: dotted field paths to human reasons. */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[]): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of issues) {
    const key = issue.path.length === 0 ? 'body' : issue.path.map(String).join('.');
    (errors[key] ??= []).push(reason(issue));
  }
  return errors;
}

/** The 422 message is the first reason, plus how many more there are. */
export function validationMessage(errors: ValidationErrors): string {
  const reasons = Object.values(errors).flat();
  const first = reasons[0] ?? 'The given data was invalid.';
  const more = reasons.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
}

export function validationErrorBody(errors: ValidationErrors): ValidationErrorBody {
  return { message: validationMessage(errors), errors };
}
