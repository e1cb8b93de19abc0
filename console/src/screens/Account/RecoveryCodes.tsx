import { API_URL } from '../../api';
import { CopyButton } from '../../components/CopyButton';
import { downloadText } from '../../download';
import { recoveryCodesFile, recoveryCodesFileName } from './factor';

/** The ten recovery codes, shown this once: copied or downloaded, then put away by "I have saved them". */
export function RecoveryCodes({ codes, account, onSaved }: { codes: readonly string[]; account: string; onSaved: () => void }) {
  return (
    <div className="card callout recovery-codes" role="region" aria-labelledby="recovery-codes-title">
      <h3 id="recovery-codes-title">Save your recovery codes</h3>
      <p>
        <strong>They are shown only this once.</strong> Each code signs you in once when you cannot use the authenticator app; keep
        them somewhere apart from your phone, such as a password manager.
      </p>
      <ol className="recovery-code-list" aria-label="Recovery codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="toolbar-actions">
        <CopyButton text={codes.join('\n')} label="Copy" />
        <button
          type="button"
          className="button button-small"
          onClick={() => downloadText(recoveryCodesFile(codes, account, API_URL, new Date()), recoveryCodesFileName(API_URL), 'text/plain')}
        >
          Download as .txt
        </button>
        <button type="button" className="button button-small button-primary" onClick={onSaved}>
          I have saved them
        </button>
      </div>
    </div>
  );
}
