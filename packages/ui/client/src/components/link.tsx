import type { ComponentChildren } from 'preact';
import { navigate } from '../router.js';

/** An in-app link: a real `<a href>` (keyboard, middle-click, copy link) that navigates in place. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(event) => {
        if (
          event.defaultPrevented ||
          event.button !== 0 ||
          event.metaKey ||
          event.ctrlKey ||
          event.shiftKey ||
          event.altKey
        )
          return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
