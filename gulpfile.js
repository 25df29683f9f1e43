// Copies the icons next to the compiled nodes and credentials (tsc copies no SVGs).
const { src, dest } = require('gulp');

function buildIcons() {
	return src(['icons/**/*.svg', 'nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
