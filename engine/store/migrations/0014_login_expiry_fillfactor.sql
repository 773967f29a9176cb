CREATE INDEX "account_sessions_expires_idx" ON "account_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "login_codes_expires_idx" ON "login_codes" USING btree ("expires_at");--> statement-breakpoint
-- Room on each page of the outbox for its rows' next versions: a dispatcher's claim (claimed_until, no indexed column) is then a HOT update, with no index entries (docs/webhooks-delivery.md).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);