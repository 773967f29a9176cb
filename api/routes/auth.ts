// Routes of this family are being written; see api/routes/index.ts.
import type { RegisterRoutes } from './index.ts';

export const register: RegisterRoutes = async () => {};
