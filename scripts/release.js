#!/usr/bin/env node
// npm run release -- [patch | minor | major | <x.y.z>]
//
// Releases what CHANGELOG.md's top entry describes: bumps the version in package.json and
// package-lock.json (none when the entry already names the version, as "## 0.1.0 (unreleased)"
// does for the first release), turns the entry's heading into "## <version> - <date>", commits
// that as "Release <version>" and tags it v<version> (annotated). Pushing the tag
// (`git push --follow-tags`) runs .github/workflows/publish.yml, which tests and publishes it.
// Refuses a dirty work tree, an existing tag, and a release whose notes are empty.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
/** "## Unreleased" or "## 1.2.3 (unreleased)". */
const UNRELEASED = /^## (?:(\d+\.\d+\.\d+) )?\(?unreleased\)?\s*$/im;

class ReleaseError extends Error {}

function git(...args) {
	return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

function nextVersion(current, wanted) {
	if (SEMVER.test(wanted)) return wanted;
	const [, major, minor, patch] = SEMVER.exec(current).map(Number);
	if (wanted === 'major') return `${major + 1}.0.0`;
	if (wanted === 'minor') return `${major}.${minor + 1}.0`;
	if (wanted === 'patch') return `${major}.${minor}.${patch + 1}`;
	throw new ReleaseError(`"${wanted}" is not patch, minor, major or a version like 1.2.3`);
}

/** Rewrites a JSON file's version fields, keeping its indentation. */
function setVersion(file, version, fields) {
	const text = fs.readFileSync(file, 'utf8');
	const indent = /^\{\r?\n(\s+)"/.exec(text)?.[1] ?? '\t';
	const data = JSON.parse(text);
	fields(data, version);
	fs.writeFileSync(file, `${JSON.stringify(data, null, indent)}\n`);
}

function release(wanted) {
	if (git('status', '--porcelain', '--untracked-files=no'))
		throw new ReleaseError('the work tree has uncommitted changes: commit or stash them first');
	const changelogFile = path.join(root, 'CHANGELOG.md');
	const changelog = fs.readFileSync(changelogFile, 'utf8');
	const top = /^## .*$/m.exec(changelog);
	const heading = top && UNRELEASED.exec(top[0]);
	if (!heading)
		throw new ReleaseError(
			`CHANGELOG.md's top entry is "${top?.[0] ?? '(none)'}": write the release's notes under "## Unreleased" first`,
		);
	const rest = changelog.slice(top.index + top[0].length);
	const notes = rest.slice(0, rest.search(/^## /m) === -1 ? undefined : rest.search(/^## /m));
	if (!notes.trim()) throw new ReleaseError(`the "${top[0]}" entry is empty: nothing to release`);

	const packageFile = path.join(root, 'package.json');
	const current = JSON.parse(fs.readFileSync(packageFile, 'utf8')).version;
	const named = heading[1];
	const version = wanted ? nextVersion(current, wanted) : named;
	if (!version)
		throw new ReleaseError('say which release this is: npm run release -- patch|minor|major|x.y.z');
	if (named && named !== version)
		throw new ReleaseError(`CHANGELOG.md's top entry is for ${named}, not ${version}`);
	const tag = `v${version}`;
	if (git('tag', '--list', tag)) throw new ReleaseError(`the tag ${tag} exists already`);

	if (version !== current) {
		setVersion(packageFile, version, (data, v) => (data.version = v));
		const lockFile = path.join(root, 'package-lock.json');
		if (fs.existsSync(lockFile))
			setVersion(lockFile, version, (data, v) => {
				data.version = v;
				if (data.packages?.['']) data.packages[''].version = v;
			});
	}
	const date = new Date().toISOString().slice(0, 10);
	fs.writeFileSync(changelogFile, changelog.slice(0, top.index) + `## ${version} - ${date}` + rest);
	const files = ['package.json', 'CHANGELOG.md'];
	if (fs.existsSync(path.join(root, 'package-lock.json'))) files.push('package-lock.json');
	git('add', '--', ...files);
	git('commit', '--quiet', '-m', `Release ${version}`);
	git('tag', '-a', tag, '-m', `n8n-nodes-comms-api ${version}`);
	return { version, tag };
}

if (require.main === module) {
	try {
		const { version, tag } = release(process.argv[2]);
		console.log(`release: ${version} committed and tagged ${tag}.`);
		console.log('release: push it with `git push --follow-tags`; the tag runs publish.yml.');
	} catch (error) {
		if (!(error instanceof ReleaseError)) throw error;
		console.error(`release: ${error.message}`);
		process.exitCode = 1;
	}
}
