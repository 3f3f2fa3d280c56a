-- Accounts schema. Every secret-derived column holds a hash, never the secret.
CREATE TABLE users (
  id TEXT PRIMARY KEY,                      -- random 16-byte hex
  email TEXT NOT NULL UNIQUE,               -- normalised: trimmed, lower-case
  email_verified_at INTEGER,                -- ms since epoch; NULL until verified
  password_hash TEXT NOT NULL,              -- "pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>"
  username TEXT UNIQUE,                     -- lower-case; NULL until chosen
  display_name TEXT,
  bio TEXT,
  avatar_url TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,                      -- public handle (listing, revoking); not a credential
  token_hash TEXT NOT NULL UNIQUE,          -- hex sha256("<pepper>:<token>")
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('cookie', 'token')),
  user_agent TEXT,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE email_tokens (
  token_hash TEXT PRIMARY KEY,              -- hex sha256("<pepper>:<token>")
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX email_tokens_user ON email_tokens(user_id, purpose);

CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY,                     -- "<action>:<ip|email>:<hash>"
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
);

-- Development only: the dev mailer's messages and the injectable clock.
CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  to_addr TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE dev_clock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  offset_ms INTEGER NOT NULL
);
