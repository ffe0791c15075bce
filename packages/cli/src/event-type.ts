/**
 * An event type as written on the command line, folded as seed 002 folds it: surrounding blanks
 * dropped and lowercased, so `Tool.Call` is `tool.call`. `episodes append --type`, `episodes query
 * --type` and `episodes gc --policy TYPE=DAYS` all read types through it.
 */
export function foldEventType(text: string): string {
  return text.trim().toLowerCase();
}
