declare const __EPISODIC_VERSION__: string | undefined;

/** The version of `@episodic/home` (written into the home config it creates), injected at build time. */
export const VERSION: string =
  typeof __EPISODIC_VERSION__ === 'string' ? __EPISODIC_VERSION__ : '0.0.0-dev';
