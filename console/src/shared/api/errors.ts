/** An API error answer ({statusCode, message, error}) as an Error the screens can show. */
export class ApiError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }

  /**
   * The form field a validation message names ("body/emails/0/value must match format "email""
   * names `emails`), so the message goes beside that field.
   */
  get field(): string | undefined {
    if (this.statusCode !== 400) return undefined;
    const match = /^body\/([A-Za-z]+)(?:\/\d+)?(?:\/([A-Za-z]+))?/.exec(this.message);
    if (!match) return undefined;
    return match[1] === 'person' && match[2] ? match[2] : match[1];
  }

  /** The message without the schema path, as a person reads it: "must match format "email"". */
  get fieldMessage(): string {
    return this.message.replace(/^body\/\S+\s/, '');
  }
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of a typed-client answer, or an ApiError with the API's own message. */
export async function unwrap<T>(answer: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await answer;
  if (response.ok) return data as T;
  const message = (error as { message?: unknown } | undefined)?.message;
  throw new ApiError(response.status, typeof message === 'string' ? message : `The server answered ${response.status}`);
}

/** What to tell the user about a failed request. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server cannot be reached. Check the connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
