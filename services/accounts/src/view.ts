// How users leave the service as JSON.
import type { User } from "./types.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const me = (u: User) => ({
  id: u.id,
  email: u.email,
  emailVerified: u.email_verified_at !== null,
  username: u.username,
  displayName: u.display_name,
  bio: u.bio,
  avatarUrl: u.avatar_url,
  createdAt: iso(u.created_at),
});

export const publicProfile = (u: User) => ({
  username: u.username,
  displayName: u.display_name,
  bio: u.bio,
  avatarUrl: u.avatar_url,
  createdAt: iso(u.created_at),
});

export { iso };
