// Startup milestones of the front ends (core/trace.ts writes them): with
// REASONIX_TRACE=<file> (or REASONIX_STARTUP_TRACE), each mark appends one
// JSON line such as {"mark":"first-frame","ms":41.2,"cpuMs":28.5}.
export { traceMark as startupMark } from "../core/trace.ts";
