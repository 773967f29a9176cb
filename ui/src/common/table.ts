// The one table every list in both apps is drawn with: a caption when the
// page gives one, a header cell per column (a hidden one for an action
// column, so every column still has a name), and each row's first cell a
// row header, which is what names the row for screen readers and tests.
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  /** Read by screen readers only (a column of buttons). */
  hiddenHeader?: boolean;
  cell: (row: T) => ComponentChildren;
}

export function DataTable<T>(props: { caption?: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string }) {
  const [first, ...rest] = props.columns;
  return html`<table>
    ${
      props.caption
        ? html`<caption>
            ${props.caption}
          </caption>`
        : null
    }
    <thead>
      <tr>
        ${props.columns.map(
          (column) => html`<th scope="col">${column.hiddenHeader ? html`<span class="visually-hidden">${column.header}</span>` : column.header}</th>`,
        )}
      </tr>
    </thead>
    <tbody>
      ${props.rows.map(
        (row) =>
          html`<tr key=${props.rowKey(row)}>
            <th scope="row">${first.cell(row)}</th>
            ${rest.map((column) => html`<td>${column.cell(row)}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}
