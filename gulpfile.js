// The published package: each node and credential package.json names, bundled with esbuild into
// one self-contained file under dist/ (libphonenumber-js included, so the package has no runtime
// dependency and n8n's scanner accepts it), plus the node codex files and the icons.
// The development tree (sandbox, harness, bench, unbundled nodes) is tsc's, in build/.
const fs = require('node:fs');
const path = require('node:path');
const { src, dest, parallel, series } = require('gulp');

/** `dist/nodes/X/X.node.js` -> `nodes/X/X.node.ts`, for every entry of package.json's n8n field. */
function entryPoints() {
	const { n8n } = JSON.parse(fs.readFileSync(path.join(__dirname, 'package.json'), 'utf8'));
	return Object.fromEntries(
		[...n8n.nodes, ...n8n.credentials].map((entry) => [
			entry.replace(/^dist\//, '').replace(/\.js$/, ''),
			entry.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
		]),
	);
}

function clean(done) {
	fs.rmSync(path.join(__dirname, 'dist'), { recursive: true, force: true });
	done();
}

async function bundle() {
	const esbuild = require('esbuild');
	await esbuild.build({
		entryPoints: entryPoints(),
		outdir: 'dist',
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		// n8n provides n8n-workflow at run time (a peer dependency); node: built-ins are the runtime's.
		external: ['n8n-workflow'],
		legalComments: 'inline',
		logLevel: 'warning',
	});
}

function copyAssets() {
	return src(['icons/**/*.svg', 'nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.build = series(clean, parallel(bundle, copyAssets));
