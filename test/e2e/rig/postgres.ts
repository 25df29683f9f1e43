// A throw-away PostgreSQL cluster for the queue-mode run (`npm run test:queue`): initdb in a temp
// folder, the server on a free loopback port, one database, removed after. Debian's postgresql
// package (scripts/ensure-postgres.sh installs it) keeps its binaries in
// /usr/lib/postgresql/<version>/bin, off the PATH, and its server refuses to run as root: as root,
// the cluster is made and run as the `postgres` user the package creates (runuser). Generic:
// nothing here knows n8n or the Comms API.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLogged, uniquePort, type Exit, type LoggedProcess } from './logged-process.ts';
import { E2eError, log, sleep } from './proc.ts';

export interface Postgres {
	host: string;
	port: number;
	user: string;
	database: string;
	version: string;
	proc: LoggedProcess;
	/** Stops the server (fast shutdown) and removes the cluster's folder. */
	stop(): Promise<Exit | null>;
}

/** Where initdb and postgres are: POSTGRES_BIN_DIR, the newest Debian install, or the PATH. */
export function postgresBinDir(): string | null {
	const holds = (dir: string) =>
		['initdb', 'postgres'].every((name) => fs.existsSync(path.join(dir, name)));
	if (process.env.POSTGRES_BIN_DIR)
		return holds(process.env.POSTGRES_BIN_DIR) ? process.env.POSTGRES_BIN_DIR : null;
	const debian = '/usr/lib/postgresql';
	const versions = fs.existsSync(debian)
		? fs
				.readdirSync(debian)
				.filter((v) => holds(path.join(debian, v, 'bin')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (versions.length) return path.join(debian, versions[0], 'bin');
	for (const dir of (process.env.PATH ?? '').split(path.delimiter))
		if (dir && holds(dir)) return dir;
	return null;
}

/** A uid/gid to run the cluster as: the `postgres` user when this process is root, else none. */
function runAs(): { user: string; uid: number; gid: number } | null {
	if (process.getuid?.() !== 0) return null;
	const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
	const uid = id('-u');
	const gid = id('-g');
	if (uid.status !== 0 || gid.status !== 0)
		throw new E2eError(
			"running as root, and there is no `postgres` user to run PostgreSQL as: run `bash scripts/ensure-postgres.sh` (Debian's postgresql package creates it)",
		);
	return { user: 'postgres', uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * initdb (trust authentication, no fsync), then postgres on a free loopback port with settings
 * for a cluster nobody needs after the run (no fsync, no synchronous commit), then `database`.
 */
export async function startPostgres(
	logDir: string | undefined,
	{ user = 'n8n', database = 'n8n' }: { user?: string; database?: string } = {},
): Promise<Postgres> {
	const bin = postgresBinDir();
	if (!bin)
		throw new E2eError(
			"PostgreSQL is not installed: run `bash scripts/ensure-postgres.sh` (Debian's postgresql package), or set POSTGRES_BIN_DIR to the folder holding initdb and postgres",
		);
	const owner = runAs();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-pg-'));
	if (owner) fs.chownSync(dir, owner.uid, owner.gid);
	const as = (command: string, args: string[]): [string, string[]] =>
		owner ? ['runuser', ['-u', owner.user, '--', command, ...args]] : [command, args];
	const data = path.join(dir, 'data');
	const [initCommand, initArgs] = as(path.join(bin, 'initdb'), [
		'-D',
		data,
		'-A',
		'trust',
		'-U',
		user,
		'-E',
		'UTF8',
		'--no-sync',
		'--no-instructions',
	]);
	const init = spawnSync(initCommand, initArgs, { encoding: 'utf8', cwd: dir });
	if (init.status !== 0)
		throw new E2eError(
			`initdb failed (${init.status ?? init.signal})`,
			`${init.stdout}${init.stderr}`,
		);
	const port = await uniquePort();
	const [command, args] = as(path.join(bin, 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const proc = startLogged('postgres', command, args, { logDir, cwd: dir });
	const began = Date.now();
	for (;;) {
		const exited = proc.exited();
		if (exited)
			throw new E2eError(`postgres exited at start (${JSON.stringify(exited)})`, proc.tail());
		if (/database system is ready to accept connections/.test(proc.text())) break;
		if (Date.now() - began > 30000)
			throw new E2eError('postgres did not start within 30s', proc.tail());
		await sleep(100);
	}
	const [createCommand, createArgs] = as(path.join(bin, 'createdb'), [
		'-h',
		'127.0.0.1',
		'-p',
		String(port),
		'-U',
		user,
		database,
	]);
	const created = spawnSync(createCommand, createArgs, { encoding: 'utf8', cwd: dir });
	if (created.status !== 0) {
		await proc.stop(5000);
		throw new E2eError(`createdb ${database} failed`, `${created.stdout}${created.stderr}`);
	}
	const version =
		/(\d+\.\d+)/.exec(
			spawnSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout,
		)?.[1] ?? '?';
	log(`PostgreSQL ${version} listening on 127.0.0.1:${port} (throw-away cluster in ${dir})`);
	return {
		host: '127.0.0.1',
		port,
		user,
		database,
		version,
		proc,
		async stop() {
			// SIGINT is PostgreSQL's fast shutdown (SIGTERM waits for every client to leave).
			let exit: Exit | null = proc.exited();
			if (!exit) {
				try {
					process.kill(-proc.child.pid!, 'SIGINT');
				} catch {
					// Already gone.
				}
				exit = await Promise.race([proc.waitExit(), sleep(10000).then(() => null)]);
				if (!exit) exit = await proc.stop(1000);
			}
			fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
			return exit;
		},
	};
}

/** n8n's settings for a PostgreSQL database (every n8n process and command of the run). */
export function postgresEnvironment(pg: Pick<Postgres, 'host' | 'port' | 'user' | 'database'>) {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: '',
		DB_POSTGRESDB_DATABASE: pg.database,
	};
}
