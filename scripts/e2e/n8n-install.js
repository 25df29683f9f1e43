'use strict';
// Moved to test/e2e/rig/n8n-install.ts (TypeScript, run by Node.js 24 as is).
module.exports = require('../../test/e2e/rig/n8n-install.ts');
