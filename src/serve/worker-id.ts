/**
 * The id a worker goes by in its log, its health answers and its telemetry: the machine and the
 * process, so two workers on one host are told apart and an operator can find the process.
 */
import { hostname } from 'node:os';

export function workerId(host: string = hostname(), pid: number = process.pid): string {
  return `${host}:${pid}`;
}
