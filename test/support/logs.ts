/**
 * Captures every line n8n's loggers receive, whatever the level: the Logger in n8n's
 * container (what a node's `this.logger` is) and n8n-workflow's LoggerProxy.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { LoggerProxy } from 'n8n-workflow';

export function captureLogs(): string[] {
	const lines: string[] = [];
	const record =
		(level: string) =>
		(message: string, meta?: unknown): void => {
			lines.push(`${level} ${message} ${meta === undefined ? '' : JSON.stringify(meta)}`);
		};
	const logger = {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
		scoped: () => logger,
	};
	Container.set(Logger, logger as unknown as Logger);
	LoggerProxy.init(logger as unknown as Logger);
	return lines;
}
