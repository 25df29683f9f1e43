// The files tsc does not emit: the icons and the node codex files (*.node.json), copied into
// dist/ beside the compiled nodes and credentials. The rest of the build is in package.json's
// build:package script (tsc module by module, then libphonenumber-js bundled once).
const { src, dest } = require('gulp');

function copyIconsAndCodex() {
	return src(
		[
			'icons/**/*.svg',
			'nodes/**/*.node.json',
			'nodes/**/*.{png,svg}',
			'credentials/**/*.{png,svg}',
		],
		{
			base: '.',
			encoding: false,
			allowEmpty: true,
		},
	).pipe(dest('dist'));
}

exports.build = copyIconsAndCodex;
