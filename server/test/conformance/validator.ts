import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The document's schemas as JSON Schema 2020-12 validators (ajv, strict): each one compiles, and responses are checked
 * against the schema the document gives their operation and status.
 */
export class DocumentSchemas {
  private readonly ajv: Ajv2020;

  constructor(document: object) {
    this.ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: false });
    addFormats.default(this.ajv);
    // The document's own members are not JSON Schema keywords; the schemas inside it are what gets compiled.
    for (const keyword of ['openapi', 'info', 'servers', 'paths', 'components', 'webhooks', 'security', 'tags']) this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...document, $id: 'doc' });
  }

  /** The validator of the schema at this place of the document (`['components', 'schemas', 'Table']`). */
  at(segments: string[]): ValidateFunction {
    const pointer = segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
    const validate = this.ajv.getSchema(`doc#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  }

  errors(validate: ValidateFunction): string {
    return this.ajv.errorsText(validate.errors);
  }
}
