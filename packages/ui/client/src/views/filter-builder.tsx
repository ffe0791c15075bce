import { useState } from 'preact/hooks';

/** An operator of seed 003's filter language (the server lists them in its overview). */
type Operator = string;
/** Operators that take no value, and those that take a comma-separated list. */
const NO_VALUE: ReadonlySet<Operator> = new Set(['IS NULL', 'IS NOT NULL']);
const LIST_VALUE: ReadonlySet<Operator> = new Set(['IN', 'CONTAINS']);
type ValueKind = 'text' | 'number' | 'boolean';

interface ConditionDraft {
  id: number;
  property: string;
  operator: Operator;
  value: string;
  kind: ValueKind;
}

/** A filter group being edited. */
export interface GroupDraft {
  id: number;
  type: 'and' | 'or';
  conditions: ConditionDraft[];
  groups: GroupDraft[];
}

let nextId = 1;
const newId = () => nextId++;

/** An empty group. */
export function emptyGroup(): GroupDraft {
  return { id: newId(), type: 'and', conditions: [], groups: [] };
}

/** A draft from a filter (as stored in the URL); unreadable input gives an empty group. */
export function draftOf(filter: unknown): GroupDraft {
  const group = (filter ?? {}) as { type?: unknown; filters?: unknown[]; groups?: unknown[] };
  return {
    id: newId(),
    type: group.type === 'or' ? 'or' : 'and',
    conditions: (Array.isArray(group.filters) ? group.filters : []).map((raw) => {
      const condition = raw as {
        property_name?: unknown;
        comparison_operator?: unknown;
        property_value?: unknown;
      };
      const value = condition.property_value;
      return {
        id: newId(),
        property: String(condition.property_name ?? ''),
        operator:
          typeof condition.comparison_operator === 'string' ? condition.comparison_operator : '=',
        value:
          value === null || value === undefined
            ? ''
            : Array.isArray(value)
              ? value.join(', ')
              : String(value),
        kind:
          typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text',
      };
    }),
    groups: (Array.isArray(group.groups) ? group.groups : []).map(draftOf),
  };
}

/** The filter a draft stands for (seed 003's JSON form). */
export function filterOf(group: GroupDraft): unknown {
  return {
    type: group.type,
    filters: group.conditions.map((condition) => {
      const base = {
        property_name: condition.property.trim(),
        comparison_operator: condition.operator,
      };
      if (NO_VALUE.has(condition.operator)) return base;
      if (LIST_VALUE.has(condition.operator)) return { ...base, property_value: condition.value };
      const value =
        condition.kind === 'number'
          ? Number(condition.value)
          : condition.kind === 'boolean'
            ? condition.value.trim() === 'true'
            : condition.value;
      return { ...base, property_value: value };
    }),
    groups: group.groups.map(filterOf),
  };
}

function GroupEditor(props: {
  group: GroupDraft;
  depth: number;
  operators: readonly Operator[];
  onChange: (group: GroupDraft) => void;
  onRemove?: () => void;
}) {
  const { group } = props;
  const update = (patch: Partial<GroupDraft>) => props.onChange({ ...group, ...patch });
  const updateCondition = (id: number, patch: Partial<ConditionDraft>) =>
    update({
      conditions: group.conditions.map((condition) =>
        condition.id === id ? { ...condition, ...patch } : condition,
      ),
    });
  return (
    <fieldset class="filter-group">
      <legend>
        <label>
          {props.depth === 0 ? 'Match episodes where' : 'Group:'}{' '}
          <select
            value={group.type}
            onChange={(event) => update({ type: event.currentTarget.value as 'and' | 'or' })}
          >
            <option value="and">all of these hold (and)</option>
            <option value="or">any of these holds (or)</option>
          </select>
        </label>
      </legend>
      {group.conditions.map((condition, index) => (
        <fieldset class="condition" key={condition.id}>
          <legend class="visually-hidden">Condition {index + 1}</legend>
          <label>
            Key
            <input
              type="text"
              value={condition.property}
              required
              onInput={(event) =>
                updateCondition(condition.id, { property: event.currentTarget.value })
              }
            />
          </label>
          <label>
            Operator
            <select
              value={condition.operator}
              onChange={(event) =>
                updateCondition(condition.id, { operator: event.currentTarget.value as Operator })
              }
            >
              {props.operators.map((operator) => (
                <option key={operator} value={operator}>
                  {operator}
                </option>
              ))}
            </select>
          </label>
          {!NO_VALUE.has(condition.operator) && (
            <>
              <label>
                Value
                <input
                  type="text"
                  value={condition.value}
                  placeholder={LIST_VALUE.has(condition.operator) ? 'a, b, c' : ''}
                  onInput={(event) =>
                    updateCondition(condition.id, { value: event.currentTarget.value })
                  }
                />
              </label>
              {!LIST_VALUE.has(condition.operator) && (
                <label>
                  as
                  <select
                    value={condition.kind}
                    onChange={(event) =>
                      updateCondition(condition.id, {
                        kind: event.currentTarget.value as ValueKind,
                      })
                    }
                  >
                    <option value="text">text</option>
                    <option value="number">number</option>
                    <option value="boolean">true/false</option>
                  </select>
                </label>
              )}
            </>
          )}
          <button
            type="button"
            class="small"
            onClick={() =>
              update({ conditions: group.conditions.filter((entry) => entry.id !== condition.id) })
            }
          >
            Remove condition
          </button>
        </fieldset>
      ))}
      {group.groups.map((child) => (
        <GroupEditor
          key={child.id}
          group={child}
          depth={props.depth + 1}
          operators={props.operators}
          onChange={(changed) =>
            update({
              groups: group.groups.map((entry) => (entry.id === changed.id ? changed : entry)),
            })
          }
          onRemove={() => update({ groups: group.groups.filter((entry) => entry.id !== child.id) })}
        />
      ))}
      <div class="builder-actions">
        <button
          type="button"
          class="small"
          onClick={() =>
            update({
              conditions: [
                ...group.conditions,
                { id: newId(), property: '', operator: '=', value: '', kind: 'text' },
              ],
            })
          }
        >
          Add condition
        </button>
        {props.depth < 4 && (
          <button
            type="button"
            class="small"
            onClick={() => update({ groups: [...group.groups, emptyGroup()] })}
          >
            Add group
          </button>
        )}
        {props.onRemove !== undefined && (
          <button type="button" class="small" onClick={props.onRemove}>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** The filter builder: edits a draft, shows the JSON it makes, and applies it. */
export function FilterBuilder(props: {
  initial: unknown;
  /** The operators the server accepts (its overview's `filter_operators`). */
  operators: readonly string[];
  onApply: (filter: unknown | null) => void;
}) {
  const [draft, setDraft] = useState<GroupDraft>(() => draftOf(props.initial));
  const json = filterOf(draft);
  return (
    <form
      class="builder"
      aria-label="Metadata filter"
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply(draft.conditions.length === 0 && draft.groups.length === 0 ? null : json);
      }}
    >
      <GroupEditor group={draft} depth={0} operators={props.operators} onChange={setDraft} />
      <details>
        <summary>The filter as JSON (seed 003)</summary>
        <pre class="json">{JSON.stringify(json, null, 2)}</pre>
      </details>
      <button type="submit">Apply filter</button>
    </form>
  );
}
