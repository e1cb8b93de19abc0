import { useEffect, useState } from 'react';

/**
 * An otpauth:// URI as a QR code for an authenticator app's camera: a PNG data URL (the console's CSP allows data:
 * images). The `qrcode` library loads only when a factor is being turned on. Drawn here, so the secret never leaves
 * the browser for a QR service.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [drawn, setDrawn] = useState<{ text: string; url: string } | { text: string; failed: true } | null>(null);
  useEffect(() => {
    let current = true;
    import('qrcode')
      .then((qrcode) => qrcode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 208 }))
      .then(
        (url) => current && setDrawn({ text, url }),
        () => current && setDrawn({ text, failed: true }),
      );
    return () => {
      current = false;
    };
  }, [text]);

  if (drawn?.text !== text) return <div className="qr-code qr-code-pending" role="img" aria-label={`${label} (drawing…)`} />;
  if ('failed' in drawn) {
    return (
      <p className="qr-code qr-code-failed" role="status">
        The QR code could not be drawn: type the key below into the app instead.
      </p>
    );
  }
  return <img className="qr-code" src={drawn.url} width={208} height={208} alt={label} />;
}
