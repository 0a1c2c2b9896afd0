import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * A route's request validators (ajv) and response serializers (fast-json-stringify) are compiled on
 * the route's first use instead of when the app starts. Compiling all of them up front was most of
 * a start: 2.0 s of CPU for the ~200 routes on a quiet machine (of a 3.5 s restart), paid again by
 * every test file's app, while a server (or a test file) uses a fraction of its routes. A schema
 * error now surfaces at the route's first request instead of at start; the docs test and the
 * OpenAPI fuzzing call every operation.
 */
export function compileOnFirstUse<F extends (data: never) => unknown>(compile: () => F): F {
  let compiled: F | undefined;
  const wrapper = (data: never) => {
    compiled ??= compile();
    const result = compiled(data);
    // Fastify reads a failed validation's errors from the function it was given.
    (wrapper as unknown as { errors?: unknown }).errors = (compiled as unknown as { errors?: unknown }).errors;
    return result;
  };
  return wrapper as F;
}

/** The default fast-json-stringify serializers, each compiled on first use (Fastify's `schemaController` option). */
export const lazySerializers = {
  compilersFactory: {
    buildSerializer: (externalSchemas?: unknown, options?: SerializerSelector.Options) => {
      const compile = SerializerSelector()(externalSchemas, options);
      return (route: SerializerSelector.RouteDefinition) => compileOnFirstUse(() => compile(route));
    },
  },
};
