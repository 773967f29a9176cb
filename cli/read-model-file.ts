// Reading a model file for the CLI, with a size check before the read so a
// huge file is refused instead of loaded.
import { readFile, stat } from 'node:fs/promises';

export const MAX_MODEL_BYTES = 10 * 1024 * 1024;

export async function readModelFile(path: string): Promise<{ ok: true; xml: string } | { ok: false; error: string }> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, error: `${path} is not a file` };
    if (info.size > MAX_MODEL_BYTES) {
      return { ok: false, error: `${path} is ${(info.size / 1048576).toFixed(1)} MiB; models may be at most ${MAX_MODEL_BYTES / 1048576} MiB` };
    }
    return { ok: true, xml: await readFile(path, 'utf8') };
  } catch (err) {
    return { ok: false, error: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
}
