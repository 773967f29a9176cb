// Resolving what a resource asks to deploy: its inline model or a key of a
// ConfigMap in its namespace, and the Orca API key from its Secret. Each
// problem becomes an Outcome with a reason a platform engineer recognises,
// and says whether waiting can help (a ConfigMap or Secret that may yet be
// created) or only a change of the spec can (both sources, an oversized
// model).
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/api-client.ts';
import type { Outcome } from './conditions.ts';
import { MAX_INLINE_BYTES, type DefinitionSpec, type Kind } from './kinds.ts';

export type Resolved<T> = { ok: true; value: T } | { ok: false; outcome: Outcome & { state: 'stalled' }; retry: boolean };

/** Reads an object of the resource's namespace; null when it does not exist. */
export type ReadObject = (kind: 'configmaps' | 'secrets', namespace: string, name: string) => Promise<KubeObject | null>;

export function checksumOf(xml: string): string {
  return createHash('sha256').update(xml, 'utf8').digest('hex');
}

function stalled(reason: string, message: string, retry: boolean): Resolved<never> {
  return { ok: false, outcome: { state: 'stalled', reason, message }, retry };
}

/** A key of a ConfigMap's data, or of its binaryData decoded as UTF-8. */
function configMapValue(configMap: KubeObject, key: string): string | undefined {
  const data = configMap.data as Record<string, string> | undefined;
  if (data?.[key] !== undefined) return data[key];
  const binary = configMap.binaryData as Record<string, string> | undefined;
  return binary?.[key] === undefined ? undefined : Buffer.from(binary[key], 'base64').toString('utf8');
}

export async function resolveModel(kind: Kind, spec: DefinitionSpec, namespace: string, read: ReadObject): Promise<Resolved<string>> {
  const inline = spec[kind.xmlField];
  const ref = spec.configMapRef;
  const field = kind.xmlField;
  if (inline !== undefined && ref !== undefined) return stalled('InvalidSpec', `spec.${field} and spec.configMapRef are both set; set exactly one.`, false);
  if (inline === undefined && ref === undefined) return stalled('InvalidSpec', `Neither spec.${field} nor spec.configMapRef is set; set exactly one.`, false);
  if (inline !== undefined) {
    if (typeof inline !== 'string' || inline.trim() === '') return stalled('InvalidSpec', `spec.${field} is empty.`, false);
    const bytes = Buffer.byteLength(inline, 'utf8');
    if (bytes > MAX_INLINE_BYTES) {
      return stalled(
        'ModelTooLarge',
        `spec.${field} is ${bytes} bytes; inline models are limited to ${MAX_INLINE_BYTES}. Put the model in a ConfigMap and use spec.configMapRef.`,
        false,
      );
    }
    return { ok: true, value: inline };
  }
  if (!ref?.name || !ref.key) return stalled('InvalidSpec', 'spec.configMapRef needs both name and key.', false);
  const configMap = await read('configmaps', namespace, ref.name);
  if (configMap === null) return stalled('ConfigMapNotFound', `ConfigMap '${ref.name}' does not exist in namespace '${namespace}'.`, true);
  const value = configMapValue(configMap, ref.key);
  if (value === undefined) return stalled('ConfigMapKeyNotFound', `ConfigMap '${ref.name}' has no key '${ref.key}'.`, true);
  if (value.trim() === '') return stalled('InvalidSpec', `ConfigMap '${ref.name}' key '${ref.key}' is empty.`, true);
  return { ok: true, value };
}

export async function resolveApiKey(spec: DefinitionSpec, namespace: string, read: ReadObject): Promise<Resolved<string>> {
  const ref = spec.apiKeySecretRef;
  if (!ref?.name) return stalled('InvalidSpec', 'spec.apiKeySecretRef.name is required: the Secret holding the Orca API key.', false);
  const key = ref.key || 'apiKey';
  const secret = await read('secrets', namespace, ref.name);
  if (secret === null) return stalled('SecretNotFound', `Secret '${ref.name}' does not exist in namespace '${namespace}'.`, true);
  const encoded = (secret.data as Record<string, string> | undefined)?.[key] ?? undefined;
  const plain = (secret.stringData as Record<string, string> | undefined)?.[key];
  const value = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : plain;
  // A key written with `echo` into a file carries a newline; an API key never has whitespace.
  const apiKey = value?.trim();
  if (!apiKey) return stalled('SecretKeyNotFound', `Secret '${ref.name}' has no key '${key}' (or it is empty).`, true);
  return { ok: true, value: apiKey };
}
