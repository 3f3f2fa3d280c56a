// Public profiles by username: no email, no id.
import { Hono } from "hono";
import { ApiError } from "../errors.ts";
import { USERNAME } from "../validate.ts";
import { publicProfile } from "../view.ts";
import type { AppEnv } from "../app-env.ts";
import type { User } from "../types.ts";

export const profiles = new Hono<AppEnv>();

profiles.get("/users/:username", async (c) => {
  const name = c.req.param("username").toLowerCase();
  const user = USERNAME.test(name)
    ? await c.env.DB.prepare("SELECT * FROM users WHERE username = ? AND email_verified_at IS NOT NULL").bind(name).first<User>()
    : null;
  if (!user) throw new ApiError(404, "not_found", "no such user");
  return c.json({ profile: publicProfile(user) });
});
