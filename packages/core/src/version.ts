declare const __EPISODIC_VERSION__: string | undefined;

/** The version of the Episodic packages, injected at build time. */
export const VERSION: string =
  typeof __EPISODIC_VERSION__ === 'string' ? __EPISODIC_VERSION__ : '0.0.0-dev';

/** How run headers name the Episodic that wrote them (seed 001's `server`), unless told otherwise. */
export const EPISODIC_SERVER_INFO: { readonly name: string; readonly version: string } =
  Object.freeze({ name: 'episodic', version: VERSION });
