// Every tenant-facing read and write names its account (DESIGN §5). An empty
// or missing account is a caller bug that would otherwise match nothing, or
// worse, so it fails loudly here instead.

export function assertAccount(account: string): void {
  if (typeof account !== 'string' || account.length === 0) {
    throw new TypeError('store: an account is required for every tenant-scoped query');
  }
}
