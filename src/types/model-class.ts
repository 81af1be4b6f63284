/**
 * Model classes: whether the model an agent talks to can look at images (`vision`) or reads
 * text only (`text-only`). A tool may be meant for one class (`ToolOptions.forModel`): the
 * image tools come in pairs, `read_image` attaching the image for a vision model and
 * `describe_image` having a configured vision model answer in words for a text-only one.
 *
 * @module
 */

/** What a model can take in: images and text (`vision`) or text only (`text-only`). */
export type ModelClass = 'vision' | 'text-only';

/** The model classes, as a list (for validation and CLIs). */
export const MODEL_CLASSES: readonly ModelClass[] = ['vision', 'text-only'];

/** Is `value` a {@link ModelClass}? */
export function isModelClass(value: unknown): value is ModelClass {
  return typeof value === 'string' && (MODEL_CLASSES as readonly string[]).includes(value);
}
