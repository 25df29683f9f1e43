import { prepareN8nEnvironment } from '../harness/environment';

prepareN8nEnvironment('test');
