declare const __EPISODIC_VERSION__: string | undefined;

/** The demo's version, set at build time. */
export const DEMO_VERSION: string =
  typeof __EPISODIC_VERSION__ === 'string' ? __EPISODIC_VERSION__ : '0.0.0-dev';
