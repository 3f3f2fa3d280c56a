/** One extra line of `reasonix doctor` that a feature contributes (e.g. the sandbox's, core/sandbox/doctor.ts). */
export type DoctorCheck = () => Promise<{ name: string; found: boolean; path?: string; note?: string }>;
