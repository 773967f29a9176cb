// drizzle-kit configuration: `npx drizzle-kit generate` turns changes to
// engine/store/schema.ts into a new committed SQL migration. The migrations
// are applied at start-up by engine/store/migrate.ts, never by drizzle-kit.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './engine/store/schema.ts',
  out: './engine/store/migrations',
});
