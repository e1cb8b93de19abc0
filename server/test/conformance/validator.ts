import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The document's schemas as JSON Schema 2020-12 validators (ajv, strict): each one compiles, and responses are checked
 * against the schema the document gives their operation and status.
 */
export class DocumentSchemas {
  private readonly ajv: Ajv2020;
  private readonly detached = new Map<string, ValidateFunction>();

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

  /** The validator of a schema taken out of the document (a parameter's, a body's): its `$ref`s still point into it. */
  of(schema: object): ValidateFunction {
    const text = JSON.stringify(schema);
    let validate = this.detached.get(text);
    if (!validate) this.detached.set(text, (validate = this.ajv.compile(JSON.parse(text.replaceAll('"#/components/', '"doc#/components/')) as object)));
    return validate;
  }

  errors(validate: ValidateFunction): string {
    return this.ajv.errorsText(validate.errors);
  }
}
