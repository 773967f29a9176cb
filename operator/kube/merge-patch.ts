// How the operator sends JSON merge patches (RFC 7386) with
// @kubernetes/client-node. The library is pinned to 1.4.x because 2.x needs
// Node 22 and Orca runs on Node 20; 1.4's generated patch methods
// (patchNamespacedCustomObject, patchNamespacedCustomObjectStatus, ...) send
// `application/json-patch+json` unless told otherwise, and strategic merge
// patch is refused (415) on custom resources, so every merge patch goes out
// with these per-call options, which override the Content-Type header.
import { setHeaderOptions, type ConfigurationOptions, type ObservableMiddleware } from '@kubernetes/client-node';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

/** Per-call options making a client-node patch call a merge patch (pass as the call's last argument). */
export function mergePatchOptions(options?: ConfigurationOptions<ObservableMiddleware>): ConfigurationOptions<ObservableMiddleware> {
  return setHeaderOptions('Content-Type', MERGE_PATCH, options);
}
