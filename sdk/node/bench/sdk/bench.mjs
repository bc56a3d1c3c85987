// bench_echo with the SDK: the cost per call is compared with ../raw.
import { Extension, textResult } from '../../zotext.mjs';

const ext = new Extension('bench-node-sdk', '1.0.0');
ext.tool('bench_echo', 'Echo the text argument', { type: 'object' }, (args) => textResult(String(args.text ?? '')));
ext.run();
