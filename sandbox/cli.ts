/**
 * `npm run sandbox`: starts the sandbox on 127.0.0.1 and prints ready-to-paste
 * credentials. Flags: --port N (default 4010), --sms-order newestFirst|oldestFirst,
 * --quiet (no request log). Ctrl-C or SIGTERM stops it cleanly.
 */
import {
	ACCOUNT_KEY_DESCRIPTIONS,
	DEFAULT_PORT,
	SEEDED_NUMBERS,
	TEST_EMAILS,
	TEST_NUMBERS,
	startSandbox,
	type Sandbox,
} from './index';
import { SMS_ORDERS, type SmsOrder } from './state';
import { SIGNATURE_HEADER } from './webhooks';

interface CliOptions {
	port: number;
	smsOrder: SmsOrder;
	quiet: boolean;
}

const USAGE = `Usage: npm run sandbox -- [--port N] [--sms-order newestFirst|oldestFirst] [--quiet]`;

export function parseArgs(argv: string[]): CliOptions | { error: string } | { help: true } {
	const options: CliOptions = { port: DEFAULT_PORT, smsOrder: 'newestFirst', quiet: false };
	for (let i = 0; i < argv.length; i += 1) {
		const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
		const value = (): string | undefined => inline ?? argv[++i];
		switch (flag) {
			case '--port': {
				const port = Number(value());
				if (!Number.isInteger(port) || port < 0 || port > 65535)
					return { error: '--port takes a number from 0 to 65535' };
				options.port = port;
				break;
			}
			case '--sms-order': {
				const order = value();
				if (!(SMS_ORDERS as readonly (string | undefined)[]).includes(order)) {
					return { error: `--sms-order takes ${SMS_ORDERS.join(' or ')}` };
				}
				options.smsOrder = order as SmsOrder;
				break;
			}
			case '--quiet':
				options.quiet = true;
				break;
			case '--help':
			case '-h':
				return { help: true };
			default:
				return { error: `unknown option ${argv[i]}` };
		}
	}
	return options;
}

export function banner(sandbox: Sandbox, smsOrder: SmsOrder): string {
	const { credentials: c } = sandbox;
	const width =
		Math.max(
			...[...Object.keys(c.account), ...SEEDED_NUMBERS.map((n) => n.phoneDocId)].map(
				(t) => t.length,
			),
		) + 2;
	const pad = (text: string): string => text.padEnd(width);
	const lines = [
		'Comms sandbox is running (Ctrl-C to stop).',
		'',
		'Account API (credential "Comms Account API")',
		`  ${pad('Base URL')}${sandbox.accountBaseUrl}`,
		...Object.entries(c.account).map(
			([name, key]) =>
				`  ${pad(name)}${key}  (${ACCOUNT_KEY_DESCRIPTIONS[name as keyof typeof ACCOUNT_KEY_DESCRIPTIONS]})`,
		),
		'',
		'Unified API (credential "Comms Unified API")',
		`  ${pad('Endpoint URL')}${sandbox.unifiedUrl}`,
		`  ${pad('Live key')}${c.unified.live}  (charges sandbox credits)`,
		`  ${pad('Test key')}${c.unified.test}  (never charges)`,
		`  ${pad('Webhook secret')}${c.webhookSecret}  (hex HMAC-SHA256 of the raw body, header ${SIGNATURE_HEADER})`,
		'',
		'Numbers (phoneDocId: voice / SMS)',
		...SEEDED_NUMBERS.map(
			(n) =>
				`  ${pad(n.phoneDocId)}${n.voiceNumber} / ${n.smsNumber ?? 'no SMS'}${n.smsNumber && !n.smsEnabled ? ' (SMS disabled)' : ''}  ${n.label}`,
		),
		'',
		'Test numbers',
		...Object.entries(TEST_NUMBERS).map(([name, number]) => `  ${name.padEnd(24)}${number}`),
		...Object.entries(TEST_EMAILS).map(
			([name, address]) => `  ${`email ${name}`.padEnd(24)}${address}`,
		),
		'',
		`SMS history order: ${smsOrder}`,
		`Control surface:   ${sandbox.controlUrl}  (GET it for the list of endpoints)`,
		'',
	];
	return lines.join('\n');
}

async function main(): Promise<void> {
	const parsed = parseArgs(process.argv.slice(2));
	if ('help' in parsed) {
		console.log(USAGE);
		return;
	}
	if ('error' in parsed) {
		console.error(`${parsed.error}\n${USAGE}`);
		process.exitCode = 2;
		return;
	}
	const sandbox = await startSandbox({
		port: parsed.port,
		smsOrder: parsed.smsOrder,
		autoSettleMs: 1000,
		log: parsed.quiet ? undefined : (line) => console.log(`[${new Date().toISOString()}] ${line}`),
	});
	console.log(banner(sandbox, parsed.smsOrder));
	const shutdown = (signal: string): void => {
		console.log(`\n${signal}: stopping the sandbox…`);
		sandbox.stop().then(
			() => process.exit(0),
			(error: Error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.once('SIGINT', () => shutdown('SIGINT'));
	process.once('SIGTERM', () => shutdown('SIGTERM'));
}

if (require.main === module) {
	main().catch((error: Error) => {
		console.error(`Could not start the sandbox: ${error.message}`);
		process.exitCode = 1;
	});
}
