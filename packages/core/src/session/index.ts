// Public exports of this area, listed by name.
export {};
