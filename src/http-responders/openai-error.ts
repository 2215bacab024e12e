/** OpenAI's error body, which its SDKs parse into a typed error with a real message. */
export function openAiError(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
) {
  return { error: { message, type, param, code } };
}
